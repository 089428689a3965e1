rchar: 9102797770
wchar: 13650
syscr: 8901
syscw: 5
read_bytes: 110592
write_bytes: 8192
cancelled_write_bytes: 0
