rchar: 26874005968
wchar: 5980
syscr: 1640445
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
