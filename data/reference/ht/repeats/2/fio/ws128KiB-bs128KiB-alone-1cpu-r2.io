rchar: 125080677300
wchar: 13665
syscr: 954509
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
