rchar: 45608578042
wchar: 13657
syscr: 348185
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
