rchar: 42775587849
wchar: 13665
syscr: 326572
syscw: 5
read_bytes: 131072
write_bytes: 24576
cancelled_write_bytes: 0
