rchar: 44942732293
wchar: 13658
syscr: 343106
syscw: 5
read_bytes: 65536
write_bytes: 8192
cancelled_write_bytes: 0
