rchar: 159587085353
wchar: 18990
syscr: 1217774
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
