rchar: 38247967657
wchar: 13659
syscr: 36696
syscw: 5
read_bytes: 73728
write_bytes: 28672
cancelled_write_bytes: 0
