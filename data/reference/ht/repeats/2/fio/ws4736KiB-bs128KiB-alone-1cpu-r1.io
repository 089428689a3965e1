rchar: 78004857861
wchar: 13666
syscr: 595349
syscw: 5
read_bytes: 249856
write_bytes: 16384
cancelled_write_bytes: 0
