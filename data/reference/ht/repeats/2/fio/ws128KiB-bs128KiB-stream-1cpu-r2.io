rchar: 95935769604
wchar: 13665
syscr: 732151
syscw: 5
read_bytes: 24576
write_bytes: 24576
cancelled_write_bytes: 0
