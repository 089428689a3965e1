rchar: 17781656516
wchar: 13660
syscr: 4341417
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
