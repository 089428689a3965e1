rchar: 103275497935
wchar: 5991
syscr: 788119
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
