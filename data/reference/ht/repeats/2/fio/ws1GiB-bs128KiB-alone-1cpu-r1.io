rchar: 33113704915
wchar: 5974
syscr: 252827
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
