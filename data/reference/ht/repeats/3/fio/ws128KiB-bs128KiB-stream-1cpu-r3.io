rchar: 89677343702
wchar: 13665
syscr: 684402
syscw: 5
read_bytes: 466944
write_bytes: 28672
cancelled_write_bytes: 0
