rchar: 11243989957
wchar: 13653
syscr: 10942
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
