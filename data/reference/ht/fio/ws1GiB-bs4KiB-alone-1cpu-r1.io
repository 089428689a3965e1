rchar: 17716259778
wchar: 13661
syscr: 4325451
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
