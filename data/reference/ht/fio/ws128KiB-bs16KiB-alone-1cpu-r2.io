rchar: 53845388239
wchar: 13665
syscr: 3286674
syscw: 5
read_bytes: 61440
write_bytes: 8192
cancelled_write_bytes: 0
