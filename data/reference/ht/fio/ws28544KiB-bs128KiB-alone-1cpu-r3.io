rchar: 29139381219
wchar: 13660
syscr: 222535
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
