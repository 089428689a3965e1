rchar: 42065832971
wchar: 13666
syscr: 321157
syscw: 5
read_bytes: 45056
write_bytes: 28672
cancelled_write_bytes: 0
