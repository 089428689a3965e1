rchar: 52317940685
wchar: 13665
syscr: 3193446
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
