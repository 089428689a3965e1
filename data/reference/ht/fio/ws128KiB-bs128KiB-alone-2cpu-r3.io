rchar: 129999374865
wchar: 11302
syscr: 992008
syscw: 3
read_bytes: 0
write_bytes: 45056
cancelled_write_bytes: 0
