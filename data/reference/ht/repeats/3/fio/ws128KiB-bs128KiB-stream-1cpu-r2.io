rchar: 121717369784
wchar: 13667
syscr: 928849
syscw: 5
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
