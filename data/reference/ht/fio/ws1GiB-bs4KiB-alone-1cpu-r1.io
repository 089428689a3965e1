rchar: 21272005581
wchar: 13666
syscr: 5193554
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
