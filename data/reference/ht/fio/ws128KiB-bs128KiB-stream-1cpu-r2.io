rchar: 94965181398
wchar: 13665
syscr: 724743
syscw: 5
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
