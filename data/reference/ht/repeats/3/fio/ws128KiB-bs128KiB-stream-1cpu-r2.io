rchar: 114996128763
wchar: 13668
syscr: 877571
syscw: 5
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
