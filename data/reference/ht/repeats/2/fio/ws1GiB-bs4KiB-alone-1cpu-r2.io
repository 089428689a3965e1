rchar: 23345036196
wchar: 13665
syscr: 5699665
syscw: 5
read_bytes: 40960
write_bytes: 12288
cancelled_write_bytes: 0
