rchar: 26894920685
wchar: 13668
syscr: 6566337
syscw: 5
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
