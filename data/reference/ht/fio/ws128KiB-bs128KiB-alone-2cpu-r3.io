rchar: 142693608533
wchar: 18984
syscr: 1088903
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
