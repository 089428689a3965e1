rchar: 160591490082
wchar: 18993
syscr: 1225436
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
