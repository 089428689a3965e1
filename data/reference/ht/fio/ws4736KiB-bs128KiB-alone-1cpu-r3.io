rchar: 42688776657
wchar: 5974
syscr: 325879
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
