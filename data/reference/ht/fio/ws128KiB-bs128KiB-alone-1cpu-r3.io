rchar: 95984397313
wchar: 13665
syscr: 732522
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
