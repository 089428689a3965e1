rchar: 113382108089
wchar: 13669
syscr: 865256
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
