rchar: 51193949132
wchar: 13661
syscr: 390797
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
