rchar: 104566032849
wchar: 5985
syscr: 797965
syscw: 3
read_bytes: 0
write_bytes: 36864
cancelled_write_bytes: 0
