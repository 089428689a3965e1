rchar: 76919188442
wchar: 13667
syscr: 587065
syscw: 5
read_bytes: 143360
write_bytes: 8192
cancelled_write_bytes: 0
