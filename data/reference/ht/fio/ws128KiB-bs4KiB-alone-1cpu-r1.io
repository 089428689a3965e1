rchar: 26889620396
wchar: 13664
syscr: 6565042
syscw: 5
read_bytes: 16384
write_bytes: 20480
cancelled_write_bytes: 0
