rchar: 20175760321
wchar: 13657
syscr: 154146
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
