rchar: 50491665358
wchar: 13660
syscr: 385439
syscw: 5
read_bytes: 393216
write_bytes: 8192
cancelled_write_bytes: 0
