rchar: 37342742997
wchar: 5975
syscr: 285092
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
