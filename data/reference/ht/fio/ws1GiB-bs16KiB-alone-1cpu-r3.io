rchar: 23584811981
wchar: 13663
syscr: 1439716
syscw: 5
read_bytes: 114688
write_bytes: 12288
cancelled_write_bytes: 0
