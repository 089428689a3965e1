rchar: 119251733009
wchar: 11299
syscr: 910010
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
