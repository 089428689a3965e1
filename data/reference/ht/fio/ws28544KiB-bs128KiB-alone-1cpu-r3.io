rchar: 47209491394
wchar: 13661
syscr: 360399
syscw: 5
read_bytes: 32768
write_bytes: 20480
cancelled_write_bytes: 0
