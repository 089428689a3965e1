rchar: 112153004547
wchar: 11295
syscr: 855851
syscw: 3
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
