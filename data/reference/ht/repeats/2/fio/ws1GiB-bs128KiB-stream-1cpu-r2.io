rchar: 46369844148
wchar: 13659
syscr: 353993
syscw: 5
read_bytes: 4096
write_bytes: 24576
cancelled_write_bytes: 0
