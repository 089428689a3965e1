rchar: 70715550677
wchar: 13667
syscr: 539735
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
