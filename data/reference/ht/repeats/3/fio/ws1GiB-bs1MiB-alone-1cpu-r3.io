rchar: 12153105351
wchar: 13654
syscr: 11809
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
