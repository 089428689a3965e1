rchar: 23578126797
wchar: 5980
syscr: 5756552
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
