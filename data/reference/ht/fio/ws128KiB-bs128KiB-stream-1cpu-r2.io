rchar: 72503634907
wchar: 13664
syscr: 553378
syscw: 5
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
