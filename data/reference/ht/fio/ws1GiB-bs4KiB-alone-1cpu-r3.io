rchar: 16056105423
wchar: 5977
syscr: 3920121
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
