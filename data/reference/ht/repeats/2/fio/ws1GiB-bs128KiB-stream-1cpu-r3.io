rchar: 26863143377
wchar: 5974
syscr: 205139
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
