rchar: 96128969731
wchar: 13669
syscr: 733625
syscw: 5
read_bytes: 0
write_bytes: 49152
cancelled_write_bytes: 0
