rchar: 119846185912
wchar: 13667
syscr: 914573
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
