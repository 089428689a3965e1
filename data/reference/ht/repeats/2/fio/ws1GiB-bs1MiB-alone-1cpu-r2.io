rchar: 29713566162
wchar: 5969
syscr: 28527
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
