rchar: 48835898354
wchar: 13660
syscr: 2980921
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
