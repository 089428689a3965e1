rchar: 71783787480
wchar: 13667
syscr: 547885
syscw: 5
read_bytes: 53248
write_bytes: 8192
cancelled_write_bytes: 0
