rchar: 56168221187
wchar: 11289
syscr: 428721
syscw: 3
read_bytes: 0
write_bytes: 40960
cancelled_write_bytes: 0
