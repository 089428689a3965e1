rchar: 90838248445
wchar: 18969
syscr: 693260
syscw: 5
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
