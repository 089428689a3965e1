rchar: 96488762367
wchar: 13667
syscr: 736371
syscw: 5
read_bytes: 12288
write_bytes: 8192
cancelled_write_bytes: 0
