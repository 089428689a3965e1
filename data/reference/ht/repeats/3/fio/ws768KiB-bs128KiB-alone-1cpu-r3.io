rchar: 86813813716
wchar: 13664
syscr: 662555
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
