rchar: 30438394321
wchar: 5973
syscr: 232416
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
