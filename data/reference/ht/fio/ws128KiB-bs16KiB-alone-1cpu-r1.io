rchar: 64954461146
wchar: 13666
syscr: 3964719
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
