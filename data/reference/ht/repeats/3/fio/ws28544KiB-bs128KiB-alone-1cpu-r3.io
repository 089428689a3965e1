rchar: 41853103109
wchar: 13659
syscr: 319534
syscw: 5
read_bytes: 20480
write_bytes: 8192
cancelled_write_bytes: 0
