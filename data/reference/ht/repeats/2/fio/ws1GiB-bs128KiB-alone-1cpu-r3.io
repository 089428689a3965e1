rchar: 32083478993
wchar: 5977
syscr: 244967
syscw: 3
read_bytes: 0
write_bytes: 40960
cancelled_write_bytes: 0
