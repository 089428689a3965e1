rchar: 32208694369
wchar: 13657
syscr: 245972
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
