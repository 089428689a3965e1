rchar: 31088249299
wchar: 5977
syscr: 237374
syscw: 3
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
