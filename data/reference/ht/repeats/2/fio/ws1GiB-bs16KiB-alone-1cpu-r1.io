rchar: 30709345262
wchar: 13663
syscr: 1874564
syscw: 5
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
