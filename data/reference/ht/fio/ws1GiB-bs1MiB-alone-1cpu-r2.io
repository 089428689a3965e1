rchar: 31251827156
wchar: 5970
syscr: 29994
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
