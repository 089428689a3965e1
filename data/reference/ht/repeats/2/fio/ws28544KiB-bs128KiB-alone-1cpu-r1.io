rchar: 46691101662
wchar: 13663
syscr: 356443
syscw: 5
read_bytes: 106496
write_bytes: 28672
cancelled_write_bytes: 0
