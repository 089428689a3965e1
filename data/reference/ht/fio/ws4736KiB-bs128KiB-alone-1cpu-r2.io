rchar: 98557471717
wchar: 13667
syscr: 752153
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
