rchar: 14172355527
wchar: 13663
syscr: 3460239
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
