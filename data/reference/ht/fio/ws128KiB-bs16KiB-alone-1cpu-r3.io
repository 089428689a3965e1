rchar: 62312253902
wchar: 5985
syscr: 3803424
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
