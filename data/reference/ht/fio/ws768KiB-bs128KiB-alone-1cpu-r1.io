rchar: 78359145550
wchar: 13665
syscr: 598072
syscw: 5
read_bytes: 53248
write_bytes: 8192
cancelled_write_bytes: 0
