rchar: 92608989649
wchar: 5983
syscr: 706740
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
