rchar: 94760929743
wchar: 5983
syscr: 723158
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
