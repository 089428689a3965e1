rchar: 35990866387
wchar: 5979
syscr: 274778
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
