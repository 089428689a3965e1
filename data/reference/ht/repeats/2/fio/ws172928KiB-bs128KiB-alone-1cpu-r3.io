rchar: 26885949909
wchar: 5975
syscr: 205313
syscw: 3
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
