rchar: 44782562257
wchar: 13658
syscr: 341883
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
