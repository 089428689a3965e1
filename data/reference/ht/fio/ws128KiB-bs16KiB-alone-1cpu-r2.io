rchar: 64224275445
wchar: 13668
syscr: 3920153
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
