rchar: 15554533839
wchar: 5985
syscr: 3797667
syscw: 3
read_bytes: 0
write_bytes: 36864
cancelled_write_bytes: 0
