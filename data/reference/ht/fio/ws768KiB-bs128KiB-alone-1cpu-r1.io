rchar: 88213400512
wchar: 13665
syscr: 673233
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
