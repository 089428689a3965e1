rchar: 49789119481
wchar: 13660
syscr: 380080
syscw: 5
read_bytes: 2252800
write_bytes: 12288
cancelled_write_bytes: 0
