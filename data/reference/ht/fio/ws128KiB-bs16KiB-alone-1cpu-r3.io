rchar: 65763257304
wchar: 13668
syscr: 4014084
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
