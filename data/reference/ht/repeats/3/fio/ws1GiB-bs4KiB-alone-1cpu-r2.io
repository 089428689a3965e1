rchar: 18070301671
wchar: 13664
syscr: 4411889
syscw: 5
read_bytes: 77824
write_bytes: 8192
cancelled_write_bytes: 0
