rchar: 45069175251
wchar: 5979
syscr: 344040
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
