rchar: 23128336845
wchar: 5981
syscr: 5646740
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
