rchar: 94804969935
wchar: 5983
syscr: 723494
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
