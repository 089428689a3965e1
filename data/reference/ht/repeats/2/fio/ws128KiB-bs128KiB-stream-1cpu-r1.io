rchar: 99086085079
wchar: 13665
syscr: 756185
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
