rchar: 46521363430
wchar: 13662
syscr: 355148
syscw: 5
read_bytes: 1089536
write_bytes: 12288
cancelled_write_bytes: 0
