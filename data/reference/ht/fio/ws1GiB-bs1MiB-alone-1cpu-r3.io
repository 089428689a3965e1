rchar: 30669867476
wchar: 5969
syscr: 29439
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
