rchar: 48831376352
wchar: 13657
syscr: 372772
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
