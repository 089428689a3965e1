rchar: 20237191635
wchar: 5980
syscr: 154587
syscw: 3
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
