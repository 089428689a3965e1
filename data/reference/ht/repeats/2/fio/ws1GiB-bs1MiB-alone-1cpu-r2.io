rchar: 12955265991
wchar: 13652
syscr: 12574
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
