rchar: 33427139553
wchar: 13660
syscr: 255248
syscw: 5
read_bytes: 90112
write_bytes: 8192
cancelled_write_bytes: 0
