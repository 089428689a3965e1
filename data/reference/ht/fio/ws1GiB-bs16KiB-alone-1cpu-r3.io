rchar: 31120616436
wchar: 13662
syscr: 1899665
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
