rchar: 16685116360
wchar: 13661
syscr: 4073707
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
