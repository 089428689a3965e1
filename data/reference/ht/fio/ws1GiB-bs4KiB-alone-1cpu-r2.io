rchar: 18096163281
wchar: 5979
syscr: 4418182
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
