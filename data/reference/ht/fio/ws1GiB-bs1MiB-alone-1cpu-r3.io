rchar: 12309343175
wchar: 13653
syscr: 11958
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
