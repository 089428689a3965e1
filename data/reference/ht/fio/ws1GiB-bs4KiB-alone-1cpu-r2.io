rchar: 11539274191
wchar: 5982
syscr: 2817379
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
