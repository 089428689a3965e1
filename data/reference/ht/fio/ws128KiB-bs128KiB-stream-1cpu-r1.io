rchar: 73454037977
wchar: 13669
syscr: 560629
syscw: 5
read_bytes: 0
write_bytes: 57344
cancelled_write_bytes: 0
