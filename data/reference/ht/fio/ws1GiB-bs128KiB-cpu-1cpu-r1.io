rchar: 25529396136
wchar: 13657
syscr: 194993
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
