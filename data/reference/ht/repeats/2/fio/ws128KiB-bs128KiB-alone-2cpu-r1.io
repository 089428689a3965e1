rchar: 143100455939
wchar: 18982
syscr: 1091989
syscw: 5
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
