rchar: 124660984756
wchar: 13666
syscr: 951307
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
