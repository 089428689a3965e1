rchar: 15746501071
wchar: 5978
syscr: 3844534
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
