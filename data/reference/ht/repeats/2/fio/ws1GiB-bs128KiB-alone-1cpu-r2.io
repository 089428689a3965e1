rchar: 52280142766
wchar: 13662
syscr: 399085
syscw: 5
read_bytes: 475136
write_bytes: 24576
cancelled_write_bytes: 0
