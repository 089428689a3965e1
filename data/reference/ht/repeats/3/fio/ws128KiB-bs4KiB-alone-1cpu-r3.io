rchar: 21392710645
wchar: 13666
syscr: 5223023
syscw: 5
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
