rchar: 31983774698
wchar: 13653
syscr: 30723
syscw: 5
read_bytes: 98304
write_bytes: 8192
cancelled_write_bytes: 0
