rchar: 20989324279
wchar: 13663
syscr: 5124540
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
