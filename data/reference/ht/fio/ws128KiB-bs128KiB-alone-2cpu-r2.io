rchar: 103670328326
wchar: 18979
syscr: 791162
syscw: 5
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
