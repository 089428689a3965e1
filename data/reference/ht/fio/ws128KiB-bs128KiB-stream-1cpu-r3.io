rchar: 73907022811
wchar: 13668
syscr: 564085
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
