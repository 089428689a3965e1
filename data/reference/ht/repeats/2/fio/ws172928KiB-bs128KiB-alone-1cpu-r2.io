rchar: 43208911881
wchar: 13666
syscr: 329878
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
