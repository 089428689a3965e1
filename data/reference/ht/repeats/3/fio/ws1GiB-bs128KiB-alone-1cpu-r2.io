rchar: 50347092940
wchar: 13659
syscr: 384336
syscw: 5
read_bytes: 4096
write_bytes: 8192
cancelled_write_bytes: 0
