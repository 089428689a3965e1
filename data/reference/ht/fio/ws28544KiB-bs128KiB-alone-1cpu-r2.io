rchar: 42744916930
wchar: 13659
syscr: 326337
syscw: 5
read_bytes: 65536
write_bytes: 20480
cancelled_write_bytes: 0
