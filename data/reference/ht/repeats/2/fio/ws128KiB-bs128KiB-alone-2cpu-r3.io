rchar: 134789442645
wchar: 18982
syscr: 1028599
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
