rchar: 32013134865
wchar: 13661
syscr: 244460
syscw: 5
read_bytes: 106496
write_bytes: 8192
cancelled_write_bytes: 0
