rchar: 72025484247
wchar: 13664
syscr: 549729
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
