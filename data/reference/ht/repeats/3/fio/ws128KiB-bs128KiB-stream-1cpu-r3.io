rchar: 81551141847
wchar: 13666
syscr: 622404
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
