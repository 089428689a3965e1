rchar: 41551375337
wchar: 13665
syscr: 317231
syscw: 5
read_bytes: 0
write_bytes: 36864
cancelled_write_bytes: 0
