rchar: 87541090769
wchar: 5986
syscr: 668075
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
