rchar: 54443264462
wchar: 5983
syscr: 3323139
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
