rchar: 15910042609
wchar: 13660
syscr: 3884481
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
