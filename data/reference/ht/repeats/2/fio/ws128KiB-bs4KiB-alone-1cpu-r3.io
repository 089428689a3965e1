rchar: 19350236106
wchar: 13661
syscr: 4724371
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
