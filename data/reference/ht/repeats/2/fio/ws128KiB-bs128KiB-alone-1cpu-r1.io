rchar: 99439586240
wchar: 13664
syscr: 758882
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
