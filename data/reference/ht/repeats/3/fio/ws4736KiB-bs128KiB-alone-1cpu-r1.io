rchar: 37596105169
wchar: 5974
syscr: 287025
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
