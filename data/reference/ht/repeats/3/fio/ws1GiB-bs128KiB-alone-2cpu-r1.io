rchar: 92890180606
wchar: 18968
syscr: 708915
syscw: 5
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
