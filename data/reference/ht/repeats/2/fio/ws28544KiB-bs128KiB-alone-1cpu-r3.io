rchar: 48428592094
wchar: 13661
syscr: 369699
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
