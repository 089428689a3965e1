rchar: 136221404163
wchar: 18987
syscr: 1039507
syscw: 5
read_bytes: 4096
write_bytes: 36864
cancelled_write_bytes: 0
