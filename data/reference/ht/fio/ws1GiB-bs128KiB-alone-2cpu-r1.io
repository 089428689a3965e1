rchar: 93304630237
wchar: 18973
syscr: 712078
syscw: 5
read_bytes: 49152
write_bytes: 45056
cancelled_write_bytes: 0
