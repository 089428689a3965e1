rchar: 34130111433
wchar: 13664
syscr: 2083347
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
