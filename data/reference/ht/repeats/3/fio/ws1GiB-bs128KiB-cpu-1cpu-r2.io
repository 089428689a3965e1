rchar: 23703694313
wchar: 13657
syscr: 181065
syscw: 5
read_bytes: 45056
write_bytes: 28672
cancelled_write_bytes: 0
