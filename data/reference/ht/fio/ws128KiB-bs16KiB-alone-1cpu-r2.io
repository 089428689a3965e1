rchar: 59830340046
wchar: 5983
syscr: 3651940
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
