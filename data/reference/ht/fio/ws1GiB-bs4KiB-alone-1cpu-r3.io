rchar: 16614726596
wchar: 13662
syscr: 4056522
syscw: 5
read_bytes: 1163264
write_bytes: 8192
cancelled_write_bytes: 0
