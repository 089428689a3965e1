rchar: 34362993644
wchar: 13655
syscr: 32992
syscw: 5
read_bytes: 122880
write_bytes: 8192
cancelled_write_bytes: 0
