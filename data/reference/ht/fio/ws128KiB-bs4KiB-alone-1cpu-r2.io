rchar: 20840078280
wchar: 13663
syscr: 5088102
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
