rchar: 40678787539
wchar: 5977
syscr: 310544
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
