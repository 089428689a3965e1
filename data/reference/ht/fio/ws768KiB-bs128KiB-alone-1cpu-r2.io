rchar: 86301715457
wchar: 13665
syscr: 658649
syscw: 5
read_bytes: 4096
write_bytes: 12288
cancelled_write_bytes: 0
