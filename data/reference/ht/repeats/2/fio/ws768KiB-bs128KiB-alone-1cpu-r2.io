rchar: 112630279092
wchar: 13666
syscr: 859520
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
