rchar: 65157327791
wchar: 13664
syscr: 3977101
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
