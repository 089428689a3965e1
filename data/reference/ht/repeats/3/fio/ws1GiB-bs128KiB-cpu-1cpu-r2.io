rchar: 19781364679
wchar: 13656
syscr: 151138
syscw: 5
read_bytes: 61440
write_bytes: 28672
cancelled_write_bytes: 0
