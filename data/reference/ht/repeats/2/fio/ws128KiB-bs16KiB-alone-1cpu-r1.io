rchar: 71461964238
wchar: 5984
syscr: 4361878
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
