rchar: 142657432632
wchar: 18981
syscr: 1088610
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
