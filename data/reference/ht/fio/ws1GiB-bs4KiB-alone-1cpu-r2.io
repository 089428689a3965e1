rchar: 20204788713
wchar: 13668
syscr: 4933004
syscw: 5
read_bytes: 159744
write_bytes: 8192
cancelled_write_bytes: 0
