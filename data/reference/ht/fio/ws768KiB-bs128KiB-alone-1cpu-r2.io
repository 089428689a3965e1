rchar: 84347562962
wchar: 13665
syscr: 643739
syscw: 5
read_bytes: 20480
write_bytes: 8192
cancelled_write_bytes: 0
