rchar: 40590568541
wchar: 13662
syscr: 2477685
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
