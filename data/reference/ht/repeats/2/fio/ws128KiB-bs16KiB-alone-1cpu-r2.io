rchar: 53792926715
wchar: 13665
syscr: 3283473
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
