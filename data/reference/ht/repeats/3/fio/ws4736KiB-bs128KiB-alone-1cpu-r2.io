rchar: 76080196571
wchar: 13666
syscr: 580664
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
