rchar: 102073174619
wchar: 11292
syscr: 778966
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
