rchar: 46007126481
wchar: 5979
syscr: 351196
syscw: 3
read_bytes: 0
write_bytes: 36864
cancelled_write_bytes: 0
