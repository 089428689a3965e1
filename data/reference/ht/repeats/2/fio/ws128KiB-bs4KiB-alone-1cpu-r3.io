rchar: 22343453679
wchar: 13668
syscr: 5455139
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
