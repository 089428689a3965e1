rchar: 14741785589
wchar: 13661
syscr: 3599262
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
