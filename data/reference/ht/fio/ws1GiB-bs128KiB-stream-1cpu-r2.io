rchar: 45756820432
wchar: 13662
syscr: 349315
syscw: 5
read_bytes: 0
write_bytes: 49152
cancelled_write_bytes: 0
