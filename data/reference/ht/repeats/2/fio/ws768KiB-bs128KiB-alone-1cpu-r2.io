rchar: 85207264210
wchar: 13664
syscr: 650296
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
