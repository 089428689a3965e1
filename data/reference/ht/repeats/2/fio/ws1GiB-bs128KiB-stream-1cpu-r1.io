rchar: 38123711441
wchar: 13657
syscr: 291079
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
