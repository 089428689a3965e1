rchar: 40024124429
wchar: 13659
syscr: 305579
syscw: 5
read_bytes: 53248
write_bytes: 8192
cancelled_write_bytes: 0
