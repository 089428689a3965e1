rchar: 21355305961
wchar: 13665
syscr: 5213892
syscw: 5
read_bytes: 110592
write_bytes: 8192
cancelled_write_bytes: 0
