rchar: 21566761930
wchar: 13663
syscr: 5265515
syscw: 5
read_bytes: 294912
write_bytes: 12288
cancelled_write_bytes: 0
