rchar: 27934788049
wchar: 5974
syscr: 213315
syscw: 3
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
