rchar: 119282969526
wchar: 13667
syscr: 910276
syscw: 5
read_bytes: 20480
write_bytes: 8192
cancelled_write_bytes: 0
