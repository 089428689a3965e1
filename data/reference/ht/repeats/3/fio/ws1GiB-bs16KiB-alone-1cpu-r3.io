rchar: 25149262290
wchar: 5979
syscr: 1535175
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
