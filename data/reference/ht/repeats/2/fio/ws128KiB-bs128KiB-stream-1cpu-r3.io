rchar: 77662366678
wchar: 13664
syscr: 592735
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
