rchar: 48302500782
wchar: 13659
syscr: 368738
syscw: 5
read_bytes: 643072
write_bytes: 20480
cancelled_write_bytes: 0
