rchar: 104596614115
wchar: 13667
syscr: 798229
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
