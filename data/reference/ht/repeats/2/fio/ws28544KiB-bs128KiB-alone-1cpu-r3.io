rchar: 29169265675
wchar: 13664
syscr: 222763
syscw: 5
read_bytes: 356352
write_bytes: 28672
cancelled_write_bytes: 0
