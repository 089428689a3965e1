rchar: 81223724049
wchar: 18973
syscr: 619908
syscw: 5
read_bytes: 65536
write_bytes: 28672
cancelled_write_bytes: 0
