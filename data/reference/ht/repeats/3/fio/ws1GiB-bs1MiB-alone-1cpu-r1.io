rchar: 25867389394
wchar: 5969
syscr: 24859
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
