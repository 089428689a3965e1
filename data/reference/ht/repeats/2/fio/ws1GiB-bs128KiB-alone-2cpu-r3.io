rchar: 48009775635
wchar: 11285
syscr: 366477
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
