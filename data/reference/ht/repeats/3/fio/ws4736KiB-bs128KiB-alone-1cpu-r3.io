rchar: 94225017855
wchar: 13667
syscr: 719100
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
