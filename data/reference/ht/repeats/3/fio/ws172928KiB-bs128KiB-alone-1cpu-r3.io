rchar: 45523512329
wchar: 13665
syscr: 347537
syscw: 5
read_bytes: 430080
write_bytes: 28672
cancelled_write_bytes: 0
