rchar: 92935227841
wchar: 5982
syscr: 709229
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
