rchar: 71992585173
wchar: 13665
syscr: 549478
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
