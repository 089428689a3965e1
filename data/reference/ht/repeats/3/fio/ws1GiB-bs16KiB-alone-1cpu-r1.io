rchar: 36038978542
wchar: 13663
syscr: 2199859
syscw: 5
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
