rchar: 130672560715
wchar: 11293
syscr: 997162
syscw: 3
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
