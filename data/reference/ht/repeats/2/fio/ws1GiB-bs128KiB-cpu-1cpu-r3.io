rchar: 23750224875
wchar: 13658
syscr: 181420
syscw: 5
read_bytes: 1523712
write_bytes: 28672
cancelled_write_bytes: 0
