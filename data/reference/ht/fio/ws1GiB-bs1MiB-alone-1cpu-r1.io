rchar: 26339248594
wchar: 5972
syscr: 25309
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
