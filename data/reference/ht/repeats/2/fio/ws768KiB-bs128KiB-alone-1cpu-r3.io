rchar: 83236203521
wchar: 13665
syscr: 635259
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
