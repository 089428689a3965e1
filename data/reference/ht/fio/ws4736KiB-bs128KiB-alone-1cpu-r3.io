rchar: 76405517272
wchar: 13666
syscr: 583146
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
