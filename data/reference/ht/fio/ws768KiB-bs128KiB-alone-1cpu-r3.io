rchar: 85584751617
wchar: 13664
syscr: 653179
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
