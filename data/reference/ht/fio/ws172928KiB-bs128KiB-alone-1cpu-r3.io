rchar: 23788718549
wchar: 5977
syscr: 181683
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
