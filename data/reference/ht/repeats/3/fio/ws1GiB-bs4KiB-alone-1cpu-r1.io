rchar: 20980947945
wchar: 13667
syscr: 5122496
syscw: 5
read_bytes: 413696
write_bytes: 8192
cancelled_write_bytes: 0
