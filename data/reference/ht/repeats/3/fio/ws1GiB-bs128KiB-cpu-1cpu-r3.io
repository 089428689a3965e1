rchar: 22150622193
wchar: 13656
syscr: 169215
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
