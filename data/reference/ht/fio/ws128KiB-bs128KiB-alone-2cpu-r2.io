rchar: 123028834819
wchar: 11296
syscr: 938827
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
