rchar: 84600097231
wchar: 5986
syscr: 645637
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
