rchar: 30382861330
wchar: 13665
syscr: 232022
syscw: 5
read_bytes: 274432
write_bytes: 28672
cancelled_write_bytes: 0
