rchar: 33875389430
wchar: 13661
syscr: 2067803
syscw: 5
read_bytes: 81920
write_bytes: 12288
cancelled_write_bytes: 0
