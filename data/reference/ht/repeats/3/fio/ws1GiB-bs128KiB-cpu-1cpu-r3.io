rchar: 19909028806
wchar: 13656
syscr: 152112
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
