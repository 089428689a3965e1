rchar: 24862763985
wchar: 13665
syscr: 189907
syscw: 5
read_bytes: 0
write_bytes: 45056
cancelled_write_bytes: 0
