rchar: 89479162859
wchar: 13665
syscr: 682891
syscw: 5
read_bytes: 49152
write_bytes: 8192
cancelled_write_bytes: 0
