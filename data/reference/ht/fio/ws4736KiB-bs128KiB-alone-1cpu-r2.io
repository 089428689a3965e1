rchar: 78395321351
wchar: 13666
syscr: 598328
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
