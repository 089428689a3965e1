rchar: 30469720529
wchar: 5976
syscr: 232655
syscw: 3
read_bytes: 0
write_bytes: 57344
cancelled_write_bytes: 0
