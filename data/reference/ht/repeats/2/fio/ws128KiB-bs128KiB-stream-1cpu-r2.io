rchar: 108820671485
wchar: 13668
syscr: 830456
syscw: 5
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
