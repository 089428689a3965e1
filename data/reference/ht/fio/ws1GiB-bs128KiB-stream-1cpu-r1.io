rchar: 27558218193
wchar: 5974
syscr: 210442
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
