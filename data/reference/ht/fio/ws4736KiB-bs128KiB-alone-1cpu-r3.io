rchar: 48270126045
wchar: 13657
syscr: 368491
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
