rchar: 7659957194
wchar: 13649
syscr: 7523
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
