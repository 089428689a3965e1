rchar: 92269030358
wchar: 13667
syscr: 704175
syscw: 5
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
