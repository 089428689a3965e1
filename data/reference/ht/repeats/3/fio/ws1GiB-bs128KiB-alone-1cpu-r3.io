rchar: 52050766798
wchar: 13660
syscr: 397334
syscw: 5
read_bytes: 389120
write_bytes: 8192
cancelled_write_bytes: 0
