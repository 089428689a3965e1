rchar: 23588875206
wchar: 13658
syscr: 180187
syscw: 5
read_bytes: 208896
write_bytes: 28672
cancelled_write_bytes: 0
