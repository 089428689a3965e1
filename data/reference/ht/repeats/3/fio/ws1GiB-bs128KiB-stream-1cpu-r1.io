rchar: 37751335888
wchar: 13658
syscr: 288238
syscw: 5
read_bytes: 24576
write_bytes: 28672
cancelled_write_bytes: 0
