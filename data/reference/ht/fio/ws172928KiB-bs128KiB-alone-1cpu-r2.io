rchar: 42602179558
wchar: 13666
syscr: 325247
syscw: 5
read_bytes: 151552
write_bytes: 32768
cancelled_write_bytes: 0
