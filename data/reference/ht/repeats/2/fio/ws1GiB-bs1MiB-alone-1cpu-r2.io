rchar: 35951586284
wchar: 13653
syscr: 34507
syscw: 5
read_bytes: 20480
write_bytes: 8192
cancelled_write_bytes: 0
