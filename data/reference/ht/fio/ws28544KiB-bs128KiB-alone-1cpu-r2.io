rchar: 39965100499
wchar: 5976
syscr: 305099
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
