rchar: 53147200508
wchar: 13665
syscr: 3244061
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
