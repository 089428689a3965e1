rchar: 100094946285
wchar: 13665
syscr: 763883
syscw: 5
read_bytes: 294912
write_bytes: 8192
cancelled_write_bytes: 0
