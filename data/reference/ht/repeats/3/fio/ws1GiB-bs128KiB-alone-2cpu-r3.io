rchar: 86227659838
wchar: 18969
syscr: 658085
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
