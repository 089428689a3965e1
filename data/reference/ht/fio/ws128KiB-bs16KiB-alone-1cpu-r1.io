rchar: 48899803598
wchar: 5977
syscr: 2984793
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
