rchar: 24146241997
wchar: 5981
syscr: 5895252
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
