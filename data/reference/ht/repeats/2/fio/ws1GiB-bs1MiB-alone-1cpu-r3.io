rchar: 12777008071
wchar: 13652
syscr: 12404
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
