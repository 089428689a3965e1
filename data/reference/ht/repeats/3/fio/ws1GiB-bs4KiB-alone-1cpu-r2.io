rchar: 14820596175
wchar: 5978
syscr: 3618483
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
