rchar: 53602216956
wchar: 13663
syscr: 3271833
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
