rchar: 40574233599
wchar: 13656
syscr: 309776
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
