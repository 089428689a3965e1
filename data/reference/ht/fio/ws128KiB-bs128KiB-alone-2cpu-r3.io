rchar: 182967184365
wchar: 18989
syscr: 1396150
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
