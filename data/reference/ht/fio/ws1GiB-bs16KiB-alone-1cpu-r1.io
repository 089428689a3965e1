rchar: 29681724506
wchar: 13665
syscr: 1811862
syscw: 5
read_bytes: 16384
write_bytes: 40960
cancelled_write_bytes: 0
