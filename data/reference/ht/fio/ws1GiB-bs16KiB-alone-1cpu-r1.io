rchar: 24058038738
wchar: 5984
syscr: 1468572
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
