rchar: 33878420462
wchar: 13665
syscr: 2067989
syscw: 5
read_bytes: 98304
write_bytes: 8192
cancelled_write_bytes: 0
