rchar: 50662730749
wchar: 13663
syscr: 3092421
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
