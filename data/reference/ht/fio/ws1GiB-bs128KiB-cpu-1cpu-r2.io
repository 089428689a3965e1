rchar: 27124411327
wchar: 13657
syscr: 207159
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
