rchar: 146316831758
wchar: 18985
syscr: 1116530
syscw: 5
read_bytes: 4096
write_bytes: 16384
cancelled_write_bytes: 0
