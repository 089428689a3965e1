rchar: 24920173508
wchar: 13657
syscr: 190344
syscw: 5
read_bytes: 167936
write_bytes: 28672
cancelled_write_bytes: 0
