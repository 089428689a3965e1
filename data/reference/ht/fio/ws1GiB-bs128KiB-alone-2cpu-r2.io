rchar: 83372649504
wchar: 18970
syscr: 636304
syscw: 5
read_bytes: 147456
write_bytes: 20480
cancelled_write_bytes: 0
