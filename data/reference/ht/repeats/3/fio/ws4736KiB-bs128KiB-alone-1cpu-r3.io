rchar: 81359514584
wchar: 13667
syscr: 620942
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
