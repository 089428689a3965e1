rchar: 93219564502
wchar: 13665
syscr: 711427
syscw: 5
read_bytes: 221184
write_bytes: 28672
cancelled_write_bytes: 0
