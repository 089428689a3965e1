rchar: 61208947700
wchar: 13669
syscr: 3736111
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
