rchar: 76835302407
wchar: 13666
syscr: 586426
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
