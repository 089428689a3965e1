rchar: 34095983606
wchar: 13664
syscr: 2081267
syscw: 5
read_bytes: 106496
write_bytes: 40960
cancelled_write_bytes: 0
