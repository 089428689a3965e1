rchar: 38711438249
wchar: 13652
syscr: 37138
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
