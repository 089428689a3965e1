rchar: 75504659418
wchar: 13666
syscr: 576273
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
