rchar: 41395006416
wchar: 13657
syscr: 316037
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
