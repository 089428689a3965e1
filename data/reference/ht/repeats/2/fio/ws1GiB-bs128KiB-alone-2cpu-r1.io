rchar: 92625284093
wchar: 18966
syscr: 706895
syscw: 5
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
