rchar: 97040271823
wchar: 5984
syscr: 740548
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
