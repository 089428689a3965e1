rchar: 41642077156
wchar: 13663
syscr: 317922
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
