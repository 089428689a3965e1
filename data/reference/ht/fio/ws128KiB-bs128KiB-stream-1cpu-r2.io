rchar: 97290267606
wchar: 13665
syscr: 742484
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
