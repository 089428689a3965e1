rchar: 54104943565
wchar: 13665
syscr: 3302516
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
