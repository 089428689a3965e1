rchar: 31687248337
wchar: 5974
syscr: 241944
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
