rchar: 142421896197
wchar: 18982
syscr: 1086812
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
