rchar: 36068993993
wchar: 13664
syscr: 2201689
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
