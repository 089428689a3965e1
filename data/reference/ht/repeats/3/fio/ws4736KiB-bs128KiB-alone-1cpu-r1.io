rchar: 75843349464
wchar: 13666
syscr: 578857
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
