rchar: 83799813075
wchar: 13665
syscr: 639560
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
