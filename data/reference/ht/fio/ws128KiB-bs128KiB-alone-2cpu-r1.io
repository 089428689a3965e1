rchar: 111445740035
wchar: 11295
syscr: 850455
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
