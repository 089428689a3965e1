rchar: 49736518147
wchar: 11285
syscr: 379651
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
