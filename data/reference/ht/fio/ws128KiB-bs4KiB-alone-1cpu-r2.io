rchar: 26560567757
wchar: 5982
syscr: 6484687
syscw: 3
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
