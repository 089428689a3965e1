rchar: 41377270227
wchar: 5979
syscr: 315873
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
