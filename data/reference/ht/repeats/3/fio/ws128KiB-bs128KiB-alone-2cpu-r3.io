rchar: 112658328589
wchar: 18979
syscr: 859735
syscw: 5
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
