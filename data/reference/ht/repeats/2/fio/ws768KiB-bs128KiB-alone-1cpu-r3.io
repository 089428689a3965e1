rchar: 106447833553
wchar: 5985
syscr: 812322
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
