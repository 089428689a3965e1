rchar: 63187389003
wchar: 11285
syscr: 482291
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
