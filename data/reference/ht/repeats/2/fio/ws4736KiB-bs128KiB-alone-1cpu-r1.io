rchar: 94777617407
wchar: 13668
syscr: 723316
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
