rchar: 72353516049
wchar: 11285
syscr: 552205
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
