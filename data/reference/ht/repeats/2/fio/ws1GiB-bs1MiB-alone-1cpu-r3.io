rchar: 32904382930
wchar: 5969
syscr: 31570
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
