rchar: 68865133006
wchar: 5986
syscr: 4203380
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
