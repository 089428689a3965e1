rchar: 37948763049
wchar: 13662
syscr: 2316422
syscw: 5
read_bytes: 106496
write_bytes: 8192
cancelled_write_bytes: 0
