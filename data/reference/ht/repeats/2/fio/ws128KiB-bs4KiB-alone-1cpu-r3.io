rchar: 27046513580
wchar: 13665
syscr: 6603346
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
