rchar: 74884778443
wchar: 5982
syscr: 571515
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
