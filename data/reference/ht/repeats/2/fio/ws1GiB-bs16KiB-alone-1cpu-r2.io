rchar: 27596130768
wchar: 5980
syscr: 1684520
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
