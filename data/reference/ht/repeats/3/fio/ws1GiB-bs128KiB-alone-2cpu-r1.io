rchar: 78531243050
wchar: 18973
syscr: 599366
syscw: 5
read_bytes: 98304
write_bytes: 40960
cancelled_write_bytes: 0
