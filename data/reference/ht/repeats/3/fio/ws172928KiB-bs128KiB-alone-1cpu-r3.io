rchar: 41066146760
wchar: 13666
syscr: 313529
syscw: 5
read_bytes: 413696
write_bytes: 28672
cancelled_write_bytes: 0
