rchar: 20245339082
wchar: 13662
syscr: 4942902
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
