rchar: 15358753233
wchar: 5979
syscr: 3749869
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
