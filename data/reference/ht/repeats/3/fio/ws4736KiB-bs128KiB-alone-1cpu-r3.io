rchar: 76428717018
wchar: 13667
syscr: 583323
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
