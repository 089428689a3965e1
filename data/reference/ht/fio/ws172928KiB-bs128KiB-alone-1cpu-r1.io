rchar: 42743737353
wchar: 13666
syscr: 326329
syscw: 5
read_bytes: 1024000
write_bytes: 32768
cancelled_write_bytes: 0
