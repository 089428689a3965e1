rchar: 23511149508
wchar: 13657
syscr: 179594
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
