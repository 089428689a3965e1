rchar: 34887101385
wchar: 13664
syscr: 2129552
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
