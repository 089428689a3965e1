rchar: 29796403667
wchar: 5974
syscr: 227518
syscw: 3
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
