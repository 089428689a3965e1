rchar: 39298640874
wchar: 13665
syscr: 300044
syscw: 5
read_bytes: 360448
write_bytes: 36864
cancelled_write_bytes: 0
