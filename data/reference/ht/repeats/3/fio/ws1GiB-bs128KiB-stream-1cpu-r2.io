rchar: 41939217362
wchar: 13661
syscr: 320189
syscw: 5
read_bytes: 0
write_bytes: 45056
cancelled_write_bytes: 0
