rchar: 120834296271
wchar: 5987
syscr: 922082
syscw: 3
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
