rchar: 83365047254
wchar: 13666
syscr: 636243
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
