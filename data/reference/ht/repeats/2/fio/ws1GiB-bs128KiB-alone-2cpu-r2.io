rchar: 89657814085
wchar: 18968
syscr: 684272
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
