rchar: 18403080655
wchar: 5980
syscr: 4493113
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
