rchar: 42724690387
wchar: 5978
syscr: 326153
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
