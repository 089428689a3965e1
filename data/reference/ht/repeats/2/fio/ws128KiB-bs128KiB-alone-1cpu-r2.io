rchar: 100248824788
wchar: 13665
syscr: 765056
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
