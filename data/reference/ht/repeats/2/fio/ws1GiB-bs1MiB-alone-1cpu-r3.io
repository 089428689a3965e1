rchar: 30174981100
wchar: 13654
syscr: 28998
syscw: 5
read_bytes: 57344
write_bytes: 8192
cancelled_write_bytes: 0
