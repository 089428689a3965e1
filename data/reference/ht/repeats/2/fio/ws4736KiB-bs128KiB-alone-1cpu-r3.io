rchar: 51810601425
wchar: 5977
syscr: 395473
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
