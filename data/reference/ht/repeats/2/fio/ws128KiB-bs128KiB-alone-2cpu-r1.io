rchar: 138604031026
wchar: 18980
syscr: 1057686
syscw: 5
read_bytes: 4096
write_bytes: 36864
cancelled_write_bytes: 0
