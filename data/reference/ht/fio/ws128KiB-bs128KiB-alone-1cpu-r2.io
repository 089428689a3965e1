rchar: 85770045905
wchar: 5982
syscr: 654563
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
