rchar: 27012434386
wchar: 5970
syscr: 25951
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
