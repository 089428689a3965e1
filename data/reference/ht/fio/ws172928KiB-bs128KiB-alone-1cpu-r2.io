rchar: 42975472758
wchar: 13664
syscr: 328116
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
