rchar: 30473219017
wchar: 13666
syscr: 1860150
syscw: 5
read_bytes: 339968
write_bytes: 40960
cancelled_write_bytes: 0
