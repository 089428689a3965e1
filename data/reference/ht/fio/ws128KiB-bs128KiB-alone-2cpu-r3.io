rchar: 138080791610
wchar: 18978
syscr: 1053694
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
