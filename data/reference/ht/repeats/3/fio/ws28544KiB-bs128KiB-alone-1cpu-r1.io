rchar: 18245683667
wchar: 5979
syscr: 139393
syscw: 3
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
