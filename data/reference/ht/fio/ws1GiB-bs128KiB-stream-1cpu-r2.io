rchar: 34733140989
wchar: 13657
syscr: 265212
syscw: 5
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
