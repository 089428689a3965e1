rchar: 25123204075
wchar: 13657
syscr: 191895
syscw: 5
read_bytes: 274432
write_bytes: 28672
cancelled_write_bytes: 0
