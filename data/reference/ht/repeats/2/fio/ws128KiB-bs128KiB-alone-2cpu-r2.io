rchar: 150464605229
wchar: 18991
syscr: 1148192
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
