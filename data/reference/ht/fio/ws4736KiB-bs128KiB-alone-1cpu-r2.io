rchar: 69150813288
wchar: 13667
syscr: 527818
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
