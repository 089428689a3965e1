rchar: 116771367931
wchar: 13668
syscr: 891114
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
