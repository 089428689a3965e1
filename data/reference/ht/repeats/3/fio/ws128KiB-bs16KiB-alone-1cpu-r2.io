rchar: 49243188173
wchar: 13663
syscr: 3005778
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
