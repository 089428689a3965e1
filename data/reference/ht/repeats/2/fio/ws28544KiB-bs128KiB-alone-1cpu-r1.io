rchar: 37407403021
wchar: 13664
syscr: 285615
syscw: 5
read_bytes: 188416
write_bytes: 28672
cancelled_write_bytes: 0
