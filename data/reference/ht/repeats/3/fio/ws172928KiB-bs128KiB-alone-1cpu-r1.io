rchar: 27478133205
wchar: 5976
syscr: 209831
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
