rchar: 94307158531
wchar: 11296
syscr: 719698
syscw: 3
read_bytes: 0
write_bytes: 36864
cancelled_write_bytes: 0
