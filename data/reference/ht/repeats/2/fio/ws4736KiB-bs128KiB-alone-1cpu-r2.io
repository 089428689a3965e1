rchar: 94586252285
wchar: 13669
syscr: 721856
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
