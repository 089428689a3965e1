rchar: 27902020051
wchar: 5972
syscr: 213065
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
