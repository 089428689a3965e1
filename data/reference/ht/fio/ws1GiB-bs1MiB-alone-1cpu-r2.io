rchar: 30781016530
wchar: 5971
syscr: 29545
syscw: 3
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
