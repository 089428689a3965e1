rchar: 42235440131
wchar: 13659
syscr: 322451
syscw: 5
read_bytes: 16384
write_bytes: 8192
cancelled_write_bytes: 0
