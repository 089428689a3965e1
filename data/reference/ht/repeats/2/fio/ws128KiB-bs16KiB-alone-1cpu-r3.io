rchar: 55046228430
wchar: 5984
syscr: 3359941
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
