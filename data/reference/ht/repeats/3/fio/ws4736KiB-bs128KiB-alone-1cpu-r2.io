rchar: 41856338385
wchar: 5972
syscr: 319528
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
