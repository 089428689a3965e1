rchar: 113345538998
wchar: 13665
syscr: 864977
syscw: 5
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
