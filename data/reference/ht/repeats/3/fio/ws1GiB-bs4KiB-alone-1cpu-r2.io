rchar: 16508647887
wchar: 5979
syscr: 4030605
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
