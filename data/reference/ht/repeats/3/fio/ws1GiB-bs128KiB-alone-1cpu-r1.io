rchar: 28739570129
wchar: 5973
syscr: 219455
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
