rchar: 32115190729
wchar: 13667
syscr: 1960368
syscw: 5
read_bytes: 0
write_bytes: 40960
cancelled_write_bytes: 0
