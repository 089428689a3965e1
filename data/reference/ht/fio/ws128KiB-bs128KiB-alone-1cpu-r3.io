rchar: 96892070866
wchar: 13665
syscr: 739446
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
