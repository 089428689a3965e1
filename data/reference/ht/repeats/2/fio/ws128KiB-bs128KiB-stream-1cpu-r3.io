rchar: 99091065860
wchar: 13665
syscr: 756224
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
