rchar: 54156921433
wchar: 11283
syscr: 413394
syscw: 3
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
