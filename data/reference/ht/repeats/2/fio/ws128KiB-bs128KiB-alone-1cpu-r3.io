rchar: 107253312503
wchar: 13668
syscr: 818498
syscw: 5
read_bytes: 966656
write_bytes: 8192
cancelled_write_bytes: 0
