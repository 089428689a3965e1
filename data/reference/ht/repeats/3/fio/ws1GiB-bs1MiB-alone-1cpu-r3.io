rchar: 38352825257
wchar: 13654
syscr: 36796
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
