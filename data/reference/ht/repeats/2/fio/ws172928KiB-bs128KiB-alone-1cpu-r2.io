rchar: 43611171782
wchar: 13663
syscr: 332946
syscw: 5
read_bytes: 434176
write_bytes: 8192
cancelled_write_bytes: 0
