rchar: 122108881889
wchar: 13668
syscr: 931836
syscw: 5
read_bytes: 0
write_bytes: 36864
cancelled_write_bytes: 0
