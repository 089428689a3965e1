rchar: 63916878836
wchar: 13666
syscr: 3901391
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
