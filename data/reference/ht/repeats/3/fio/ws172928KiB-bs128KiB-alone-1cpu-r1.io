rchar: 44599979025
wchar: 13661
syscr: 340490
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
