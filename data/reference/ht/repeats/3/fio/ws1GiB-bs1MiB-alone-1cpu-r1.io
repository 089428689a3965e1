rchar: 12855651269
wchar: 13652
syscr: 12479
syscw: 5
read_bytes: 249856
write_bytes: 8192
cancelled_write_bytes: 0
