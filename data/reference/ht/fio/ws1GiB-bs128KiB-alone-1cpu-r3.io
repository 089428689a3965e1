rchar: 50761411532
wchar: 13660
syscr: 387497
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
