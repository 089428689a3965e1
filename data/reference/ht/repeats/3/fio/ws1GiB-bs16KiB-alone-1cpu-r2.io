rchar: 33472080841
wchar: 13663
syscr: 2043184
syscw: 5
read_bytes: 303104
write_bytes: 8192
cancelled_write_bytes: 0
