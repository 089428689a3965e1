rchar: 117397588483
wchar: 11297
syscr: 895864
syscw: 3
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
