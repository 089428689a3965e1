rchar: 107183975415
wchar: 13668
syscr: 817969
syscw: 5
read_bytes: 24576
write_bytes: 8192
cancelled_write_bytes: 0
