rchar: 85628136502
wchar: 18968
syscr: 653512
syscw: 5
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
