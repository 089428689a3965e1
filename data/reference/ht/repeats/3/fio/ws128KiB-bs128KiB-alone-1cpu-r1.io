rchar: 86870961087
wchar: 13667
syscr: 662991
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
