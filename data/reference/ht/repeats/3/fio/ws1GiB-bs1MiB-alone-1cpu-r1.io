rchar: 37600996332
wchar: 13654
syscr: 36080
syscw: 5
read_bytes: 12288
write_bytes: 12288
cancelled_write_bytes: 0
