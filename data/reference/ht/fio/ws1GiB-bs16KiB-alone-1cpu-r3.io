rchar: 34259856327
wchar: 13663
syscr: 2091268
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
