rchar: 21324917704
wchar: 13663
syscr: 5206471
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
