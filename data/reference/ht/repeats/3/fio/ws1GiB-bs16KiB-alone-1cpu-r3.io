rchar: 31385299911
wchar: 13664
syscr: 1915819
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
