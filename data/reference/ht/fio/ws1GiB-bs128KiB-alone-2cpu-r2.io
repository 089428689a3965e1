rchar: 93699288029
wchar: 18968
syscr: 715089
syscw: 5
read_bytes: 8192
write_bytes: 16384
cancelled_write_bytes: 0
