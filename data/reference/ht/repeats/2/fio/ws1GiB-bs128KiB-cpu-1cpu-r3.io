rchar: 16876374473
wchar: 5972
syscr: 128944
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
