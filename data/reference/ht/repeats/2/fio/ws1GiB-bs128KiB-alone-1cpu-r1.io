rchar: 28543486419
wchar: 5973
syscr: 217959
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
