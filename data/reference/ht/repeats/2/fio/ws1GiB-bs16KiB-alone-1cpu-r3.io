rchar: 29739518416
wchar: 5979
syscr: 1815342
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
