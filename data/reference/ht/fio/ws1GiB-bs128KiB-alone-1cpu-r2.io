rchar: 49474415566
wchar: 13658
syscr: 377678
syscw: 5
read_bytes: 983040
write_bytes: 8192
cancelled_write_bytes: 0
