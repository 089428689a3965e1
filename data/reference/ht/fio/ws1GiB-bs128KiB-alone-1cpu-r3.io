rchar: 28872608209
wchar: 5973
syscr: 220470
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
