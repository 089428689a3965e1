rchar: 22548990418
wchar: 5977
syscr: 1376467
syscw: 3
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
