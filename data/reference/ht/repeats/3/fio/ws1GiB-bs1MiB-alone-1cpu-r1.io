rchar: 12656421874
wchar: 13650
syscr: 12290
syscw: 5
read_bytes: 98304
write_bytes: 8192
cancelled_write_bytes: 0
