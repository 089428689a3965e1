rchar: 22396644437
wchar: 13661
syscr: 171112
syscw: 5
read_bytes: 0
write_bytes: 53248
cancelled_write_bytes: 0
