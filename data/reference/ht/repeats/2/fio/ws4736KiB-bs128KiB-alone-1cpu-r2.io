rchar: 45783648721
wchar: 5973
syscr: 349491
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
