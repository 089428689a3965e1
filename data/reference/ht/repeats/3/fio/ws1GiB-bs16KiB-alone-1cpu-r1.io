rchar: 22770911698
wchar: 5983
syscr: 1390012
syscw: 3
read_bytes: 0
write_bytes: 45056
cancelled_write_bytes: 0
