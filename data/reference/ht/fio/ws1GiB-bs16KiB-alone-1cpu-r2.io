rchar: 31740374103
wchar: 13667
syscr: 1937512
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
