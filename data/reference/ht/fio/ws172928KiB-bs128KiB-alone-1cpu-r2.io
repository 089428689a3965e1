rchar: 46130244552
wchar: 13667
syscr: 352165
syscw: 5
read_bytes: 372736
write_bytes: 36864
cancelled_write_bytes: 0
