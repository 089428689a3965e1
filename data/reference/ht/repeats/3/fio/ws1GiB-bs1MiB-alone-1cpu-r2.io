rchar: 37764574119
wchar: 13652
syscr: 36235
syscw: 5
read_bytes: 319488
write_bytes: 12288
cancelled_write_bytes: 0
