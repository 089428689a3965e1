rchar: 46138239992
wchar: 13663
syscr: 352227
syscw: 5
read_bytes: 106496
write_bytes: 45056
cancelled_write_bytes: 0
