rchar: 86374025679
wchar: 5980
syscr: 659171
syscw: 3
read_bytes: 0
write_bytes: 40960
cancelled_write_bytes: 0
