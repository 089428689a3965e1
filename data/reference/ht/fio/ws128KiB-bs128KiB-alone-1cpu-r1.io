rchar: 79884954704
wchar: 13665
syscr: 609713
syscw: 5
read_bytes: 851968
write_bytes: 8192
cancelled_write_bytes: 0
