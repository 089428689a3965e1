rchar: 14269164519
wchar: 13662
syscr: 3483877
syscw: 5
read_bytes: 73728
write_bytes: 8192
cancelled_write_bytes: 0
