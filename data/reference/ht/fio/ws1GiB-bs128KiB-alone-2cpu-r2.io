rchar: 78416948336
wchar: 18968
syscr: 598512
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
