rchar: 98159799250
wchar: 13664
syscr: 749118
syscw: 5
read_bytes: 274432
write_bytes: 8192
cancelled_write_bytes: 0
