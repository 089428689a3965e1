rchar: 84348087232
wchar: 13665
syscr: 643743
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
