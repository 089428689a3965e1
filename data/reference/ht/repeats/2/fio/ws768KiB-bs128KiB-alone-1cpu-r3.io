rchar: 87123405780
wchar: 13665
syscr: 664917
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
