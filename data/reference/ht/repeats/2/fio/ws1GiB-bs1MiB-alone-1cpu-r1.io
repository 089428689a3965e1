rchar: 29103294932
wchar: 5970
syscr: 27945
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
