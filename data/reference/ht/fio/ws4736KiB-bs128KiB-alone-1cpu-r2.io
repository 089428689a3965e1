rchar: 83936127962
wchar: 13666
syscr: 640600
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
