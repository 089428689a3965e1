rchar: 24685332944
wchar: 5983
syscr: 1506859
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
