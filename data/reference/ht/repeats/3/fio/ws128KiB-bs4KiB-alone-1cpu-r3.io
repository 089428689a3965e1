rchar: 25363405261
wchar: 5980
syscr: 6192411
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
