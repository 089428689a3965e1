rchar: 48378260430
wchar: 13658
syscr: 369315
syscw: 5
read_bytes: 12288
write_bytes: 8192
cancelled_write_bytes: 0
