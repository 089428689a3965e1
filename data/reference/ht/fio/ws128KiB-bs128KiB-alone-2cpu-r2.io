rchar: 119678110211
wchar: 11295
syscr: 913263
syscw: 3
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
