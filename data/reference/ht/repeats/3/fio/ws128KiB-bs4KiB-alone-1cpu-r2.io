rchar: 25255357423
wchar: 13665
syscr: 6166053
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
