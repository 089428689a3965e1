rchar: 98793532417
wchar: 13663
syscr: 753954
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
