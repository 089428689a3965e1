rchar: 46622944228
wchar: 13664
syscr: 355923
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
