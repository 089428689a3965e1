rchar: 14473824721
wchar: 5975
syscr: 110616
syscw: 3
read_bytes: 0
write_bytes: 45056
cancelled_write_bytes: 0
