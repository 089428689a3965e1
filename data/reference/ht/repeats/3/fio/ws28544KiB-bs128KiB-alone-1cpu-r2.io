rchar: 19564923347
wchar: 5979
syscr: 149458
syscw: 3
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
