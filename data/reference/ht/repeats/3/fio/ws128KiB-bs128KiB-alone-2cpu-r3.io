rchar: 159509359739
wchar: 18983
syscr: 1217200
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
