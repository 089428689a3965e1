rchar: 139730725964
wchar: 18983
syscr: 1066299
syscw: 5
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
