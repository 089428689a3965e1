rchar: 40524950639
wchar: 13660
syscr: 309420
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
