rchar: 13532916175
wchar: 5984
syscr: 3304108
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
