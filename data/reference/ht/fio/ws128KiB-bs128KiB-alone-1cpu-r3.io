rchar: 122515991476
wchar: 13666
syscr: 934942
syscw: 5
read_bytes: 16384
write_bytes: 20480
cancelled_write_bytes: 0
