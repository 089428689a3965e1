rchar: 10109430725
wchar: 13655
syscr: 9860
syscw: 5
read_bytes: 262144
write_bytes: 28672
cancelled_write_bytes: 0
