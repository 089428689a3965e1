rchar: 98440555478
wchar: 13665
syscr: 751260
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
