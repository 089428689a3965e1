rchar: 23150005156
wchar: 13665
syscr: 5652050
syscw: 5
read_bytes: 4096
write_bytes: 8192
cancelled_write_bytes: 0
