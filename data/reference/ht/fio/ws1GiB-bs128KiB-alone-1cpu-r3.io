rchar: 51717843888
wchar: 13663
syscr: 394795
syscw: 5
read_bytes: 983040
write_bytes: 20480
cancelled_write_bytes: 0
