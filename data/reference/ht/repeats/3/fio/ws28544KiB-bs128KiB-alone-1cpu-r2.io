rchar: 34332847072
wchar: 13660
syscr: 262157
syscw: 5
read_bytes: 24576
write_bytes: 8192
cancelled_write_bytes: 0
