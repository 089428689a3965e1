rchar: 43162119140
wchar: 13661
syscr: 329519
syscw: 5
read_bytes: 311296
write_bytes: 16384
cancelled_write_bytes: 0
