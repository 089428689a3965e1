rchar: 29533776867
wchar: 13659
syscr: 225544
syscw: 5
read_bytes: 4096
write_bytes: 12288
cancelled_write_bytes: 0
