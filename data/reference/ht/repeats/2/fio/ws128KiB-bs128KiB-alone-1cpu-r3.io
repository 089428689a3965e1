rchar: 90996583378
wchar: 13665
syscr: 694467
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
