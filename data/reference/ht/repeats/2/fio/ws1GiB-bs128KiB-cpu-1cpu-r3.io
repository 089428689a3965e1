rchar: 26270346152
wchar: 13656
syscr: 200646
syscw: 5
read_bytes: 8192
write_bytes: 28672
cancelled_write_bytes: 0
