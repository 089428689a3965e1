rchar: 38651538435
wchar: 13659
syscr: 295108
syscw: 5
read_bytes: 81920
write_bytes: 8192
cancelled_write_bytes: 0
