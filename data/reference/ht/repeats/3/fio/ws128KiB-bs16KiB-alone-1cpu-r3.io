rchar: 36440271823
wchar: 13659
syscr: 2224350
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
