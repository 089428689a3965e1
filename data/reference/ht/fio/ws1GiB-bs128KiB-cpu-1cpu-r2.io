rchar: 23576947665
wchar: 13661
syscr: 180097
syscw: 5
read_bytes: 983040
write_bytes: 32768
cancelled_write_bytes: 0
