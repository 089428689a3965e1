rchar: 27625712556
wchar: 13665
syscr: 6744752
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
