rchar: 27513744327
wchar: 13664
syscr: 1679518
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
