rchar: 23734208978
wchar: 5980
syscr: 1448807
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
