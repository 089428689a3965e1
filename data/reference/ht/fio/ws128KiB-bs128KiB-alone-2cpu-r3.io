rchar: 111187045587
wchar: 18979
syscr: 848544
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
