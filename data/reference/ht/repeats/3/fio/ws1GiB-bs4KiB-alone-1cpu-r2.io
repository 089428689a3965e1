rchar: 14745131972
wchar: 13663
syscr: 3600078
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
