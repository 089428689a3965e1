rchar: 21811801073
wchar: 13656
syscr: 166630
syscw: 5
read_bytes: 262144
write_bytes: 28672
cancelled_write_bytes: 0
