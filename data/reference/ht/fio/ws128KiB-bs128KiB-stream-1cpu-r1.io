rchar: 100192594942
wchar: 13666
syscr: 764629
syscw: 5
read_bytes: 4096
write_bytes: 28672
cancelled_write_bytes: 0
