rchar: 23422131181
wchar: 13664
syscr: 5718488
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
