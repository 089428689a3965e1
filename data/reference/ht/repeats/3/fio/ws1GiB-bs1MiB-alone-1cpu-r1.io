rchar: 36982336423
wchar: 13657
syscr: 35489
syscw: 5
read_bytes: 4096
write_bytes: 28672
cancelled_write_bytes: 0
