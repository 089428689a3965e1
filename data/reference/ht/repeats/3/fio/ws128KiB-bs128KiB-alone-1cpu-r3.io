rchar: 119032359927
wchar: 13666
syscr: 908365
syscw: 5
read_bytes: 200704
write_bytes: 8192
cancelled_write_bytes: 0
