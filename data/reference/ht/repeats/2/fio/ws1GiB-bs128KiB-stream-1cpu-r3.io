rchar: 45424946100
wchar: 13659
syscr: 346784
syscw: 5
read_bytes: 4096
write_bytes: 28672
cancelled_write_bytes: 0
