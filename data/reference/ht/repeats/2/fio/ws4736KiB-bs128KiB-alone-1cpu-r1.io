rchar: 49588275665
wchar: 5975
syscr: 378518
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
