rchar: 71942253507
wchar: 13666
syscr: 549094
syscw: 5
read_bytes: 4096
write_bytes: 12288
cancelled_write_bytes: 0
