rchar: 67998386765
wchar: 11283
syscr: 518996
syscw: 3
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
