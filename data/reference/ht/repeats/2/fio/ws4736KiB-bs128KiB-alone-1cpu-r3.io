rchar: 76800043992
wchar: 13667
syscr: 586156
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
