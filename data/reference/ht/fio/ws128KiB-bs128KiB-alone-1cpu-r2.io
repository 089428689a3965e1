rchar: 123283549110
wchar: 13667
syscr: 940798
syscw: 5
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
