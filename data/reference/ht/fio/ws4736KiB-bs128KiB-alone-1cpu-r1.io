rchar: 43383982547
wchar: 5971
syscr: 331183
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
