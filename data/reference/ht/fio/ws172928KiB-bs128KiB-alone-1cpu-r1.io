rchar: 22692825557
wchar: 5979
syscr: 173322
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
