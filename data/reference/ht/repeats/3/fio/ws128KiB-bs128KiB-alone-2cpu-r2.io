rchar: 184697728053
wchar: 18989
syscr: 1409372
syscw: 5
read_bytes: 4096
write_bytes: 32768
cancelled_write_bytes: 0
