rchar: 35309464556
wchar: 13665
syscr: 2155333
syscw: 5
read_bytes: 110592
write_bytes: 16384
cancelled_write_bytes: 0
