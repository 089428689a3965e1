rchar: 57750653445
wchar: 11285
syscr: 440794
syscw: 3
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
