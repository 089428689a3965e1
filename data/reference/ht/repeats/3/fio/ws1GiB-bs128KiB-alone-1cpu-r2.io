rchar: 49242156017
wchar: 13657
syscr: 375908
syscw: 5
read_bytes: 741376
write_bytes: 8192
cancelled_write_bytes: 0
