rchar: 87194709028
wchar: 18969
syscr: 665465
syscw: 5
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
