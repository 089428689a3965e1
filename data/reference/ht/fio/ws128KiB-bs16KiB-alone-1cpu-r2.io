rchar: 53720034300
wchar: 13665
syscr: 3279024
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
