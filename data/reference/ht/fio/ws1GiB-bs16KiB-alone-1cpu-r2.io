rchar: 32773188598
wchar: 13664
syscr: 2000530
syscw: 5
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
