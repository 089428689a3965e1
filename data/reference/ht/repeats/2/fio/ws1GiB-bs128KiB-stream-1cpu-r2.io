rchar: 33065774077
wchar: 13659
syscr: 252491
syscw: 5
read_bytes: 0
write_bytes: 49152
cancelled_write_bytes: 0
