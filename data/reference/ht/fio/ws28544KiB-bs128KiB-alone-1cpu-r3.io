rchar: 36623068126
wchar: 13660
syscr: 279630
syscw: 5
read_bytes: 4096
write_bytes: 8192
cancelled_write_bytes: 0
