rchar: 21312568297
wchar: 13665
syscr: 5203458
syscw: 5
read_bytes: 110592
write_bytes: 12288
cancelled_write_bytes: 0
