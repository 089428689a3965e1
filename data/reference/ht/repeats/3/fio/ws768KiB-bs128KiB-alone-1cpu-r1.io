rchar: 106587949521
wchar: 5985
syscr: 813391
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
