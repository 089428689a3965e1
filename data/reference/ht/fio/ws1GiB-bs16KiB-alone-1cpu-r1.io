rchar: 27874094023
wchar: 13667
syscr: 1701512
syscw: 5
read_bytes: 0
write_bytes: 45056
cancelled_write_bytes: 0
