rchar: 24413358544
wchar: 5984
syscr: 1490259
syscw: 3
read_bytes: 0
write_bytes: 45056
cancelled_write_bytes: 0
