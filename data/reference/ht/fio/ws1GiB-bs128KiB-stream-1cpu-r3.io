rchar: 24275168042
wchar: 13673
syscr: 185417
syscw: 5
read_bytes: 0
write_bytes: 61440
cancelled_write_bytes: 0
