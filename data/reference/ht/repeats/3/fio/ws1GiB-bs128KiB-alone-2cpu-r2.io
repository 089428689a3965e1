rchar: 96612494301
wchar: 18968
syscr: 737315
syscw: 5
read_bytes: 4096
write_bytes: 24576
cancelled_write_bytes: 0
