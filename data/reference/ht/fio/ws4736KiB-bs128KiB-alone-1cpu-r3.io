rchar: 102394604474
wchar: 13668
syscr: 781428
syscw: 5
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
