rchar: 28341766609
wchar: 5973
syscr: 216420
syscw: 3
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
