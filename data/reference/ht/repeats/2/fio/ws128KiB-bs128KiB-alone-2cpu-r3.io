rchar: 106708929041
wchar: 11292
syscr: 814316
syscw: 3
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
