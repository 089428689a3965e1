rchar: 52054961146
wchar: 13665
syscr: 3177396
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
