rchar: 23309109714
wchar: 5977
syscr: 1422861
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
