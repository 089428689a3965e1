rchar: 117656759293
wchar: 13669
syscr: 897870
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
