rchar: 52653697999
wchar: 13666
syscr: 3213939
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
