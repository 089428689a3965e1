rchar: 14123866577
wchar: 5977
syscr: 3448383
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
