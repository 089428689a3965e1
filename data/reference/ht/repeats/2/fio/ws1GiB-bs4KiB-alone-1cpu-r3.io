rchar: 22908058534
wchar: 13666
syscr: 5592981
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
