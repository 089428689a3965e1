rchar: 13846120913
wchar: 5973
syscr: 105827
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
