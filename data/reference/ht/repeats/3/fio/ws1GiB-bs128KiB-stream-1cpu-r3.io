rchar: 26084444625
wchar: 5974
syscr: 199198
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
