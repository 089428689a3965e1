rchar: 60004035572
wchar: 13666
syscr: 3662570
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
