rchar: 147183873029
wchar: 18986
syscr: 1123143
syscw: 5
read_bytes: 0
write_bytes: 36864
cancelled_write_bytes: 0
