rchar: 11013303239
wchar: 13653
syscr: 10722
syscw: 5
read_bytes: 4096
write_bytes: 8192
cancelled_write_bytes: 0
