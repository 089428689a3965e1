rchar: 87915998189
wchar: 13663
syscr: 670965
syscw: 5
read_bytes: 98304
write_bytes: 8192
cancelled_write_bytes: 0
