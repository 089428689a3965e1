rchar: 47279614944
wchar: 13661
syscr: 360933
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
