rchar: 12693122034
wchar: 13656
syscr: 12325
syscw: 5
read_bytes: 53248
write_bytes: 28672
cancelled_write_bytes: 0
