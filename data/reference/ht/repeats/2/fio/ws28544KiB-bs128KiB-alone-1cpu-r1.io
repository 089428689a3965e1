rchar: 37390715347
wchar: 5977
syscr: 285458
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
