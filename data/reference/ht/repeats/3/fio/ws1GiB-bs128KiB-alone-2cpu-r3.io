rchar: 93158484980
wchar: 18970
syscr: 710963
syscw: 5
read_bytes: 319488
write_bytes: 12288
cancelled_write_bytes: 0
