rchar: 52355476431
wchar: 13665
syscr: 3195737
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
