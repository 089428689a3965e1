rchar: 53670964173
wchar: 13665
syscr: 3276028
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
