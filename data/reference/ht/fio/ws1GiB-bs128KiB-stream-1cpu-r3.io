rchar: 50071579570
wchar: 13657
syscr: 382235
syscw: 5
read_bytes: 0
write_bytes: 36864
cancelled_write_bytes: 0
