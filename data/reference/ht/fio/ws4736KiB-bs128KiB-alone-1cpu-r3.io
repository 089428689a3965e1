rchar: 42793241043
wchar: 5981
syscr: 326676
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
