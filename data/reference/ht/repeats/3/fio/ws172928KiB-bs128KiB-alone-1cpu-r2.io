rchar: 44054326281
wchar: 13666
syscr: 336328
syscw: 5
read_bytes: 8192
write_bytes: 32768
cancelled_write_bytes: 0
