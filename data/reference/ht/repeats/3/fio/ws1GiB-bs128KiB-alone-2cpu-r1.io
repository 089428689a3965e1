rchar: 50800298533
wchar: 11285
syscr: 387775
syscw: 3
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
