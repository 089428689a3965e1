rchar: 45829958606
wchar: 13665
syscr: 2797451
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
