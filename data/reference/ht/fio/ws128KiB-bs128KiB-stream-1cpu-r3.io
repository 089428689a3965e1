rchar: 67812698894
wchar: 13666
syscr: 517574
syscw: 5
read_bytes: 0
write_bytes: 36864
cancelled_write_bytes: 0
