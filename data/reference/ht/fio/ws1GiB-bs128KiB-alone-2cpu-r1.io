rchar: 70267153480
wchar: 18973
syscr: 536335
syscw: 5
read_bytes: 0
write_bytes: 40960
cancelled_write_bytes: 0
