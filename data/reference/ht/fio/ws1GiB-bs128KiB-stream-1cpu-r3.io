rchar: 37880441812
wchar: 13657
syscr: 289224
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
