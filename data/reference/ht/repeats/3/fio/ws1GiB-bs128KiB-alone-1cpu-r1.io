rchar: 44529593294
wchar: 13658
syscr: 339950
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
