rchar: 26685692909
wchar: 13667
syscr: 6515254
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
