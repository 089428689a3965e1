rchar: 64570944498
wchar: 13665
syscr: 3941312
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
