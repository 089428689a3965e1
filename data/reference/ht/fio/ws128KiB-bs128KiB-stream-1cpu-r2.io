rchar: 88882088399
wchar: 5980
syscr: 678306
syscw: 3
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
