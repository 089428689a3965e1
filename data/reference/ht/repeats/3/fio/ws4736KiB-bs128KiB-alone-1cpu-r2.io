rchar: 77292088325
wchar: 13667
syscr: 589911
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
