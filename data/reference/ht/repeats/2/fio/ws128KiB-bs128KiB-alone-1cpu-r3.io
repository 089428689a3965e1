rchar: 89487772113
wchar: 5983
syscr: 682927
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
