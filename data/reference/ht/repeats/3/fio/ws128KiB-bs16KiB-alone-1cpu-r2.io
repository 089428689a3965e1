rchar: 53360978941
wchar: 13666
syscr: 3257109
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
