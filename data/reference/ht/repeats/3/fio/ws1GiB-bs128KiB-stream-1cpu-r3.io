rchar: 38683913168
wchar: 13657
syscr: 295353
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
