rchar: 52034120691
wchar: 13661
syscr: 397209
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
