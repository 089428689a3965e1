rchar: 37792361410
wchar: 13659
syscr: 288552
syscw: 5
read_bytes: 16384
write_bytes: 12288
cancelled_write_bytes: 0
