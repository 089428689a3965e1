rchar: 66928356312
wchar: 13665
syscr: 510841
syscw: 5
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
