rchar: 34090871751
wchar: 13667
syscr: 2080954
syscw: 5
read_bytes: 16384
write_bytes: 24576
cancelled_write_bytes: 0
