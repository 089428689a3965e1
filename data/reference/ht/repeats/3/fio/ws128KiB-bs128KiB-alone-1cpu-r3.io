rchar: 96340913106
wchar: 13665
syscr: 735241
syscw: 5
read_bytes: 8192
write_bytes: 12288
cancelled_write_bytes: 0
