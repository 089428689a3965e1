rchar: 45447883765
wchar: 13659
syscr: 346960
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
