rchar: 72499440639
wchar: 13665
syscr: 553346
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
