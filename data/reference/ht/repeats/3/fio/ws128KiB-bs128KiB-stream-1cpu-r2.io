rchar: 96111495631
wchar: 5983
syscr: 733462
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
