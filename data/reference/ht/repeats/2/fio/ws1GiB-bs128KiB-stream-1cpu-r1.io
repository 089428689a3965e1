rchar: 42063342547
wchar: 13657
syscr: 321136
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
