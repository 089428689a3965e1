rchar: 79579819013
wchar: 13667
syscr: 607365
syscw: 5
read_bytes: 65536
write_bytes: 8192
cancelled_write_bytes: 0
