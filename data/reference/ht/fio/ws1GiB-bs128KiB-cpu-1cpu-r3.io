rchar: 23117016004
wchar: 13658
syscr: 176587
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
