rchar: 99637111845
wchar: 18968
syscr: 760409
syscw: 5
read_bytes: 126976
write_bytes: 24576
cancelled_write_bytes: 0
