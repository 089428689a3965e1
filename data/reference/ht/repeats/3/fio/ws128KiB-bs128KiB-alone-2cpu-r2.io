rchar: 142924778059
wchar: 11300
syscr: 1090639
syscw: 3
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
