rchar: 24832617441
wchar: 13658
syscr: 189676
syscw: 5
read_bytes: 294912
write_bytes: 28672
cancelled_write_bytes: 0
