rchar: 52807666128
wchar: 5983
syscr: 3223310
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
