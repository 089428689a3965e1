rchar: 97287383999
wchar: 13666
syscr: 742462
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
