rchar: 40634526733
wchar: 13662
syscr: 310236
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
