rchar: 65554131887
wchar: 13665
syscr: 4001320
syscw: 5
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
