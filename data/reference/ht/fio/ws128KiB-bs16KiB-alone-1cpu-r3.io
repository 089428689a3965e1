rchar: 49231350224
wchar: 5987
syscr: 3005029
syscw: 3
read_bytes: 0
write_bytes: 36864
cancelled_write_bytes: 0
