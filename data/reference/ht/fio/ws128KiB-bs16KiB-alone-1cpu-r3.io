rchar: 63280556975
wchar: 13666
syscr: 3862552
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
