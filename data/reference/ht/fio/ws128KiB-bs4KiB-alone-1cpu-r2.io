rchar: 27270601685
wchar: 13668
syscr: 6658055
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
