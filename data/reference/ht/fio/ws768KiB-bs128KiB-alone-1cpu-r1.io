rchar: 70667447236
wchar: 13665
syscr: 539369
syscw: 5
read_bytes: 282624
write_bytes: 8192
cancelled_write_bytes: 0
