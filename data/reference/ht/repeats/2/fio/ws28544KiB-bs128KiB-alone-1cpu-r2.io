rchar: 35197135875
wchar: 13659
syscr: 268753
syscw: 5
read_bytes: 61440
write_bytes: 8192
cancelled_write_bytes: 0
