rchar: 64527592434
wchar: 13667
syscr: 3938666
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
