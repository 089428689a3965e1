rchar: 41788173261
wchar: 13661
syscr: 2550760
syscw: 5
read_bytes: 1134592
write_bytes: 12288
cancelled_write_bytes: 0
