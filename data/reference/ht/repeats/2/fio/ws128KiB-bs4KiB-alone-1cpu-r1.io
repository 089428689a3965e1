rchar: 24957754349
wchar: 13665
syscr: 6093396
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
