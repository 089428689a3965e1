rchar: 12473969650
wchar: 13654
syscr: 12116
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
