rchar: 101370276835
wchar: 13676
syscr: 773613
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
