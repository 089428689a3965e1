rchar: 93749095395
wchar: 13664
syscr: 715469
syscw: 5
read_bytes: 200704
write_bytes: 8192
cancelled_write_bytes: 0
