rchar: 92937062863
wchar: 5983
syscr: 709243
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
