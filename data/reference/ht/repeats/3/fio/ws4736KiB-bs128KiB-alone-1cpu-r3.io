rchar: 77481356295
wchar: 13667
syscr: 591355
syscw: 5
read_bytes: 32768
write_bytes: 8192
cancelled_write_bytes: 0
