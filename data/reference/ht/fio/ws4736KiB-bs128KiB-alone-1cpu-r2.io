rchar: 97983638527
wchar: 13667
syscr: 747776
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
