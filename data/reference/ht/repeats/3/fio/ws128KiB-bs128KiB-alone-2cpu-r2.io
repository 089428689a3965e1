rchar: 148320660485
wchar: 18980
syscr: 1131816
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
