rchar: 33221340103
wchar: 13663
syscr: 2027882
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
