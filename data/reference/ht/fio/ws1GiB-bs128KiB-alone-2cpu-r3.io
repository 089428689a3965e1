rchar: 92649925692
wchar: 18968
syscr: 707101
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
