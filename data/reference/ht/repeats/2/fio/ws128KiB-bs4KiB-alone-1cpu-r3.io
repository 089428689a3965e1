rchar: 31333505485
wchar: 5985
syscr: 7649955
syscw: 3
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
