rchar: 37643725833
wchar: 13666
syscr: 287419
syscw: 5
read_bytes: 16384
write_bytes: 28672
cancelled_write_bytes: 0
