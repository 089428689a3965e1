rchar: 170794396712
wchar: 18993
syscr: 1303279
syscw: 5
read_bytes: 32768
write_bytes: 36864
cancelled_write_bytes: 0
