rchar: 57478507506
wchar: 13667
syscr: 3508424
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
