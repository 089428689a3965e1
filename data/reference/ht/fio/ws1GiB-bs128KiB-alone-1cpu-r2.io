rchar: 39835380690
wchar: 13658
syscr: 304139
syscw: 5
read_bytes: 28672
write_bytes: 8192
cancelled_write_bytes: 0
