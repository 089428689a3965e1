rchar: 25125308877
wchar: 5983
syscr: 6134282
syscw: 3
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
