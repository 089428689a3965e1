rchar: 28222409165
wchar: 5982
syscr: 6890410
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
