rchar: 45179972627
wchar: 13664
syscr: 344915
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
