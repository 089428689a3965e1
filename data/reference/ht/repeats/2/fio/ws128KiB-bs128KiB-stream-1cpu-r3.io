rchar: 81344137679
wchar: 5985
syscr: 620796
syscw: 3
read_bytes: 0
write_bytes: 49152
cancelled_write_bytes: 0
