rchar: 58144000529
wchar: 11285
syscr: 443795
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
