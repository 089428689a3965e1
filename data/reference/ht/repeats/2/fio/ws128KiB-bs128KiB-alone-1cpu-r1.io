rchar: 117697522659
wchar: 13669
syscr: 898181
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
