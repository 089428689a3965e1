rchar: 27121748435
wchar: 5973
syscr: 207112
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
