rchar: 21982854054
wchar: 13665
syscr: 5367101
syscw: 5
read_bytes: 57344
write_bytes: 12288
cancelled_write_bytes: 0
