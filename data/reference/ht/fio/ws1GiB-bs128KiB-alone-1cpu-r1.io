rchar: 39550168016
wchar: 13658
syscr: 301963
syscw: 5
read_bytes: 528384
write_bytes: 20480
cancelled_write_bytes: 0
