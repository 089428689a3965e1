rchar: 56410327502
wchar: 5982
syscr: 3443199
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
