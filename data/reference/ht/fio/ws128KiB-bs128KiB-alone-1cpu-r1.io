rchar: 71370607043
wchar: 5983
syscr: 544704
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
