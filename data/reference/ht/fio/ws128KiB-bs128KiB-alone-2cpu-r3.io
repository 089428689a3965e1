rchar: 124999764499
wchar: 11295
syscr: 953864
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
