rchar: 16447269828
wchar: 13663
syscr: 4015639
syscw: 5
read_bytes: 8192
write_bytes: 12288
cancelled_write_bytes: 0
