rchar: 39529548241
wchar: 5973
syscr: 301776
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
