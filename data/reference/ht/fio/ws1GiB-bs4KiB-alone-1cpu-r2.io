rchar: 16175582191
wchar: 13663
syscr: 3949310
syscw: 5
read_bytes: 61440
write_bytes: 8192
cancelled_write_bytes: 0
