rchar: 34506386449
wchar: 13661
syscr: 263482
syscw: 5
read_bytes: 16384
write_bytes: 8192
cancelled_write_bytes: 0
