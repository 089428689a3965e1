rchar: 12695219188
wchar: 13650
syscr: 12327
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
