rchar: 46338780102
wchar: 13664
syscr: 353756
syscw: 5
read_bytes: 98304
write_bytes: 28672
cancelled_write_bytes: 0
