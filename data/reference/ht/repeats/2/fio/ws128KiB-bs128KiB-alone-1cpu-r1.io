rchar: 102440217581
wchar: 13665
syscr: 781776
syscw: 5
read_bytes: 2437120
write_bytes: 8192
cancelled_write_bytes: 0
