rchar: 26116426193
wchar: 5977
syscr: 199442
syscw: 3
read_bytes: 0
write_bytes: 45056
cancelled_write_bytes: 0
