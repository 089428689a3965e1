rchar: 86772263935
wchar: 13663
syscr: 662239
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
