rchar: 65937468335
wchar: 13665
syscr: 4024717
syscw: 5
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
