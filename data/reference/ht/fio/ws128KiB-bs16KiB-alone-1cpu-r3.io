rchar: 47560059997
wchar: 13661
syscr: 2903069
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
