rchar: 103302933477
wchar: 13668
syscr: 788359
syscw: 5
read_bytes: 4096
write_bytes: 8192
cancelled_write_bytes: 0
