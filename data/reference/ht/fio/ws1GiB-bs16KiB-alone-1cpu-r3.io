rchar: 31859944430
wchar: 13665
syscr: 1944791
syscw: 5
read_bytes: 163840
write_bytes: 8192
cancelled_write_bytes: 0
