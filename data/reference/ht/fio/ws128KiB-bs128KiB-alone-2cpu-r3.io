rchar: 97000205328
wchar: 18977
syscr: 740274
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
