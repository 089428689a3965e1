rchar: 86509160911
wchar: 5980
syscr: 660202
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
