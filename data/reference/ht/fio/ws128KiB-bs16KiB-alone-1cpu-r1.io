rchar: 42012519374
wchar: 13664
syscr: 2564453
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
