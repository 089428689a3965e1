rchar: 26145414058
wchar: 13665
syscr: 6383351
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
