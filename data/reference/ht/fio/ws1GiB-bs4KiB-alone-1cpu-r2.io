rchar: 14522231751
wchar: 13661
syscr: 3545660
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
