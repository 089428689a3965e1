rchar: 42736659461
wchar: 13660
syscr: 326275
syscw: 5
read_bytes: 77824
write_bytes: 12288
cancelled_write_bytes: 0
