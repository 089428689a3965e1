rchar: 35853544447
wchar: 13658
syscr: 273760
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
