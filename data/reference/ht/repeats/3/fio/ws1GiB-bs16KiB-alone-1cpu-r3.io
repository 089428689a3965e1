rchar: 36651740075
wchar: 13663
syscr: 2237258
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
