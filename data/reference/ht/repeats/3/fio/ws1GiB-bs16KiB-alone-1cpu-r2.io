rchar: 32859958260
wchar: 13664
syscr: 2005826
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
