rchar: 102396439482
wchar: 13668
syscr: 781442
syscw: 5
read_bytes: 32768
write_bytes: 8192
cancelled_write_bytes: 0
