rchar: 82141645262
wchar: 5984
syscr: 5013714
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
