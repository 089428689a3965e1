rchar: 182862457901
wchar: 18989
syscr: 1395369
syscw: 5
read_bytes: 8192
write_bytes: 16384
cancelled_write_bytes: 0
